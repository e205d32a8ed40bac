import { Module } from '@nestjs/common';
import { AccountsService } from './accounts.service';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { SignupPageController } from './signup-page.controller';

/** Sign-up (REST and HTML), password login and `GET /api/me`. */
@Module({
  controllers: [AuthController, SignupPageController],
  providers: [AccountsService, AuthService],
  exports: [AccountsService, AuthService],
})
export class AuthModule {}
